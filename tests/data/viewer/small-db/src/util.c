/* util.c - source of the hand-made test database (not compiled). */
double helper(double x, int depth)
{
	x = x * x + 1;
	if (depth > 0)
		return helper(x, depth - 1);
	return x;
}
