# derived-lib.sh - sourced by tests: a derived metric's value at a scope of
# a database, computed as readers compute it (hpcprof-database(5), Metric
# table): its MetricFormula t="view" over the scope's values, evaluated by
# XPath, "" where hpcprof-c's readers show no value (0, or a division by
# zero).  Formulas of + - * / ^-free arithmetic only (no min, max, ^).

# derived DBDIR SCOPE NAME: the value of column NAME at the scope the
# XPath SCOPE selects (e.g. "//SecCallPathProfileData//L[@l=2]"; the
# totals: "//SecCallPathProfileData").
derived() {
	_frm=$(xmllint --xpath "string(//Metric[@n=\"$3\"]/MetricFormula[@t=\"view\"]/@frm)" \
		"$1/experiment.xml") &&
	_expr=$(printf '%s\n' "$_frm" |
		sed -e "s| / | div |g" -e "s|\\\$\\([0-9]*\\)|sum($2/M[@n=\\1]/@v)|g") &&
	_v=$(xmllint --xpath "$_expr" "$1/experiment.xml") &&
	case $_v in
	0|-0|NaN|Infinity|-Infinity) ;;
	*) printf '%s\n' "$_v" ;;
	esac
}
