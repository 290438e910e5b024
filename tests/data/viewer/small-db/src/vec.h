static inline void vec_add(double *a, const double *b, int k)
{
	a[k] += b[k];
}
