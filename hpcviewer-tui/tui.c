/*
 * tui.c - the curses browser (interactive mode lands with #6 part 3).
 */
#include "error.h"
#include "tui.h"

int tui_run(struct browser *b, enum view_kind kind)
{
	(void)b;
	(void)kind;
	return hpc_seterr("the interactive screen is not implemented yet (#6); use --stdio");
}
