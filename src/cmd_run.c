#include "commands.h"
fb_status fb_cmd_run(int argc, char **argv) { (void)argc; (void)argv; fb_error("run: not built yet"); return FB_E_USAGE; }
