/* commands.h — the subcommands main.c dispatches to. Each parses its own
 * arguments (argv[0] is the subcommand name), prints its --help, and returns an
 * fb_status; main alone turns that into the exit code. */
#ifndef FB_COMMANDS_H
#define FB_COMMANDS_H
#include "fb.h"

fb_status fb_cmd_run(int argc, char **argv);
fb_status fb_cmd_list(int argc, char **argv);
fb_status fb_cmd_validate(int argc, char **argv);
fb_status fb_cmd_selftest(int argc, char **argv);
fb_status fb_cmd_env(int argc, char **argv);
fb_status fb_cmd_merge(int argc, char **argv);
fb_status fb_cmd_export(int argc, char **argv);
fb_status fb_cmd_compare(int argc, char **argv);

/* True when argv holds -h or --help. */
int fb_wants_help(int argc, char **argv);
#endif
