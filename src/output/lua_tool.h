/* `luabench compare` and `luabench report`: commands over result files written in Lua
 * (lua/luabench/compare.lua, lua/luabench/report_html.lua), run in a Lua state of their own. */
#ifndef LB_OUTPUT_LUA_TOOL_H
#define LB_OUTPUT_LUA_TOOL_H

/* argv[0] is the command name; `module` the Lua module whose main(args) implements it.
 * Returns the process exit code. */
int lb_lua_tool_main(const char *module, int argc, char **argv);

#endif
