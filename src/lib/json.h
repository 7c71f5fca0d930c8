/* JSON output helpers shared by the applets' --json modes. */
#ifndef LB_JSON_H
#define LB_JSON_H

#include <stdio.h>

/* Write str as a JSON string: quotes, backslash and control characters
 * escaped, valid UTF-8 kept, other bytes as \u00XX; NULL writes "". */
void lb_json_str(FILE *f, const char *str);

#endif
