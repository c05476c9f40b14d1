/* check.c — placeholder until written */
#include "fb.h"
