#include "commands.h"
fb_status fb_cmd_selftest(int argc, char **argv) { (void)argc; (void)argv; fb_error("selftest: not built yet"); return FB_E_USAGE; }
