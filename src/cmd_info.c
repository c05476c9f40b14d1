#include "commands.h"
fb_status fb_cmd_list(int argc, char **argv) { (void)argc; (void)argv; fb_error("list: not built yet"); return FB_E_USAGE; }
fb_status fb_cmd_validate(int argc, char **argv) { (void)argc; (void)argv; fb_error("validate: not built yet"); return FB_E_USAGE; }
