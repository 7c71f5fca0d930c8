#!/bin/sh
# scripts/applets.sh files|table LB_HOST|LB_TARGET FILE...
# files: the applet source files built into that binary;
# table: the sorted X(name) lines of their LB_APPLET declarations.
mode=$1 where=$2; shift 2
files=$(grep -l "^LB_APPLET([a-z0-9_]*, *[^,]*$where" "$@" /dev/null 2>/dev/null)
case $mode in
files) echo $files ;;
table) [ -n "$files" ] && sed -n 's/^LB_APPLET(\([a-z0-9_]*\),.*/X(\1)/p' $files | LC_ALL=C sort ;;
esac
exit 0
