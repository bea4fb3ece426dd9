-- Every function the FFI declarations name (the cdef modules generated from api/ffi.h,
-- api/ffi_sql.h and api/ffi_io.h) must resolve in the running binary: a declaration without an
-- exported definition fails only when a script first calls it.
local ffi = require("ffi")

-- Function names declared in a block of cdef text: "<type> name(" at the start of a declaration.
local function declared_functions(text)
  local names = {}
  -- Declarations end with ';'; a function declaration is the one with a parameter list.
  for decl in text:gmatch("[^;]+") do
    local flat = decl:gsub("%s+", " ")
    if not flat:find("typedef", 1, true) and not flat:find("^%s*struct [%w_]+%s*{") then
      -- "name(" but not a pointer to a function ("(*name)(") or a cast.
      local name, after = flat:match("([%a_][%w_]*)%s*%((.)")
      if name and after ~= "*" and not flat:find("%(%s*%*%s*" .. name) then names[#names + 1] = name end
    end
  end
  return names
end

describe("the FFI surface", function()
  for _, mod in ipairs({ "luabench.cdef", "luabench.cdef_sql", "luabench.cdef_io", "luabench.cdef_socket",
  "luabench.cdef_kernels" }) do
    it(mod .. ": every declared function resolves in the binary", function()
      local text = require(mod)
      -- The SQL and I/O declarations are only loaded by the states that use those APIs.
      if mod ~= "luabench.cdef" then pcall(ffi.cdef, text) end
      local names = declared_functions(text)
      assert.is_true(#names > 5, mod .. " declares " .. #names .. " functions")
      local missing = {}
      for _, name in ipairs(names) do
        local ok = pcall(function() return ffi.C[name] end)
        if not ok then missing[#missing + 1] = name end
      end
      assert.are.same({}, missing)
    end)
  end

  it("a name that is not exported does not resolve (the check can fail)", function()
    ffi.cdef("int lb_no_such_function_for_the_test(void);")
    assert.is_false((pcall(function() return ffi.C.lb_no_such_function_for_the_test end)))
  end)
end)
