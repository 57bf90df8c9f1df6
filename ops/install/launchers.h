/* ops/install/launchers.h: the entry-point launchers (tools/win/launcher.c, console and windows
 * subsystems) built into wheelpick.exe, written in front of a Windows environment's entry points.
 * The Windows build links them from build/win/launcher-*.exe (mk/windows.mk, a generated array);
 * other builds link ops/install/launchers_none.c, where both are empty, and refuse to install
 * into a Windows environment. */
#ifndef WP_OPS_INSTALL_LAUNCHERS_H
#define WP_OPS_INSTALL_LAUNCHERS_H

#include <stddef.h>

extern const unsigned char wp_launcher_console[], wp_launcher_gui[];
extern const size_t wp_launcher_console_len, wp_launcher_gui_len;

#endif
