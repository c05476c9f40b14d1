#include "commands.h"
fb_status fb_cmd_env(int argc, char **argv) { (void)argc; (void)argv; fb_error("env: not built yet"); return FB_E_USAGE; }
