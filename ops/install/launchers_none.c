/* ops/install/launchers_none.c: no entry-point launchers in this build (ops/install/launchers.h):
 * installing into a Windows environment needs wheelpick.exe, which carries them. */
#include "ops/install/launchers.h"

const unsigned char wp_launcher_console[1], wp_launcher_gui[1];
const size_t wp_launcher_console_len = 0, wp_launcher_gui_len = 0;
