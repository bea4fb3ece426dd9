/* Empty on purpose: LuaJIT's FFI knows the C99 fixed-width types (see lua/meson.build). */
