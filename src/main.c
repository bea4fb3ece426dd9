#include <stdio.h>
int main(void) { puts("luabench skeleton"); return 0; }
