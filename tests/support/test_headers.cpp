// Owns the precompiled header the test binaries reuse (tests/CMakeLists.txt); it runs no test.
int main() { return 0; }
