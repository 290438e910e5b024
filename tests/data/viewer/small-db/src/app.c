/* app.c - source of the hand-made test database (not compiled). */
#include "vec.h"
double helper(double x, int depth);

int main(void)
{
	double s = 0;
	for (int i = 0; i < 1000; i++) {
		s += i * 0.5;
		s += compute(s);
	}
	s = s / 3;
	s += helper(s, 1);
	return s > 0;
}



/* the hot loop */
double compute(double s) {
	double a[64], b[64];
	for (int k = 0; k < 64; k++) {
		s += a[k] * b[k];
		vec_add(a, b, k); }
	return helper(s, 0);
}
