// snack/snack.hpp: the whole C++ API of snack in one include.
#pragma once
#include "snack/algebra.hpp"
#include "snack/backend.hpp"
#include "snack/containers.hpp"
#include "snack/error.hpp"
#include "snack/operations.hpp"
#include "snack/types.hpp"
