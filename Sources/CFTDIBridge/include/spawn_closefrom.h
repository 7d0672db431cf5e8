/*
 * posix_spawn_file_actions_addclosefrom_np (glibc 2.34) is a GNU extension Swift's
 * Glibc module does not declare: this names it for the FT232H guardian's spawn.
 */
#ifndef HAPBRIDGE_SPAWN_CLOSEFROM_H
#define HAPBRIDGE_SPAWN_CLOSEFROM_H

#include <spawn.h>

/* The child closes every descriptor from `from` up (after the other actions); 0 or an errno. */
int hb_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
