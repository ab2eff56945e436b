// tests/pch.cpp: the one source of snack_test_pch, the target that owns the test programs' precompiled
// <gtest/gtest.h> (tests/CMakeLists.txt).
