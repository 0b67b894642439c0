option(RPL_ENABLE_TESTS "Build the tests" ON)
option(RPL_WERROR "Treat warnings as errors" ON)
option(RPL_SANITIZERS "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
