# tests/need.sh: sourced by a tier.  need TOOL...: a tool the tier runs is
# missing: say so and fail the tier (exit 1), so no check passes without
# it.  `make check` installs them all (mk/deps.sh, group "test").
need() {
	_missing=
	for _t; do command -v "$_t" >/dev/null 2>&1 || _missing="$_missing $_t"; done
	[ -z "$_missing" ] && return 0
	echo "FAIL: $(basename "$(dirname "$0")")/$(basename "$0"): not found:$_missing" \
	    "(make check installs what the tests run; see mk/deps.sh)"
	exit 1
}
