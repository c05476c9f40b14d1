/* program.c — placeholder until written */
#include "fb.h"
