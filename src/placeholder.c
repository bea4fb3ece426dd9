int lb_placeholder(void); int lb_placeholder(void) { return 0; }
