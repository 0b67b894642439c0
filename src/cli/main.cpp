#include "app.hpp"

int main(int argc, char** argv) { return rpl::cli::run(std::vector<std::string>(argv, argv + argc)); }
