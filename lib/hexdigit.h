/*
 * hexdigit.h - the value of one hexadecimal digit, for the readers of
 * text formats that spell bytes or addresses in hex (.hpcpy, kallsyms).
 */
#ifndef HPC_HEXDIGIT_H
#define HPC_HEXDIGIT_H

/* 0-15 for '0'-'9', 'a'-'f' and 'A'-'F'; -1 for anything else. */
static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
