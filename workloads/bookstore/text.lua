-- bookstore.text: generated text for the population and for new customers. The searchable
-- fields follow TPC-W's rules (a DigSyl token in every title and author last name, so that the
-- search strings drawn at run time find rows); everything else is filler of the right length.
-- Long filler is cut from a pool of pseudo-words built once per Lua state, which keeps the load
-- fast (one substring per field instead of one random draw per character).
local common = require("bookstore.common")

local M = {}

local uniform = sysbench.rand.uniform
local sub, concat, char = string.sub, table.concat, string.char

-- Pseudo-words: lower-case consonant/vowel groups, so they can never contain an upper-case
-- DigSyl token by accident (PostgreSQL's LIKE is case-sensitive; MySQL's default collations
-- are not, but a 14-letter upper-case syllable run does not occur in these words either, since
-- every word is at most 9 letters and separated by blanks).
local ONSETS = { "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "qu", "r", "s", "t",
  "v", "w", "z", "br", "cl", "dr", "fl", "gr", "pl", "st", "th", "tr", "sh", "ch" }
local VOWELS = { "a", "e", "i", "o", "u", "ea", "ou", "ai", "y" }
local CODAS = { "", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "rk" }

local words
local function word()
  local parts = {}
  for i = 1, uniform(1, 3) do
    parts[#parts + 1] = ONSETS[uniform(1, #ONSETS)] .. VOWELS[uniform(1, #VOWELS)]
  end
  parts[#parts + 1] = CODAS[uniform(1, #CODAS)]
  return concat(parts)
end

local function vocabulary()
  if words then return words end
  words = {}
  for i = 1, 512 do words[i] = word() end
  return words
end

local pool, pool_len
local function text_pool()
  if pool then return pool end
  local w = vocabulary()
  local parts, n = {}, 0
  while n < 65536 do
    local s = w[uniform(1, #w)]
    parts[#parts + 1] = s
    n = n + #s + 1
  end
  pool = concat(parts, " ")
  pool_len = #pool
  return pool
end

-- Filler text of length in [min, max] (words, cut at a random place of the pool).
function M.text(min, max)
  local p = text_pool()
  local n = uniform(min, max)
  local at = uniform(1, pool_len - n)
  return sub(p, at, at + n - 1)
end

local LOWER, UPPER = 97, 65
-- A random word-like string of letters: first letter capital (names).
function M.name(min, max)
  local n = uniform(min, max)
  local t = { char(uniform(UPPER, UPPER + 25)) }
  for i = 2, n do t[i] = char(uniform(LOWER, LOWER + 25)) end
  return concat(t)
end

function M.letters(min, max)
  local n = uniform(min, max)
  local t = {}
  for i = 1, n do t[i] = char(uniform(LOWER, LOWER + 25)) end
  return concat(t)
end

function M.digits(n)
  local t = { char(48 + uniform(1, 9)) }
  for i = 2, n do t[i] = char(48 + uniform(0, 9)) end
  return concat(t)
end

-- I_TITLE: 14..60 characters of words with the item's 14-letter token inserted at a random word
-- position; in a quarter of the titles the token is spliced into the middle of a word. The
-- token's number is the item id for the first fifth of the items (so every search string has at
-- least one title) and uniform over that fifth for the rest.
function M.title(i_id, items)
  local fifth = math.floor(items / 5)
  local k = i_id <= fifth and i_id or uniform(1, fifth)
  local token = common.digsyl(k, 7)
  local room = uniform(14, 60) - #token
  local w = vocabulary()
  local list, len = {}, 0
  while room - len > 2 do
    local s = w[uniform(1, #w)]
    if len + #s + 1 > room then
      s = sub(s, 1, room - len - 1)
    end
    list[#list + 1] = s
    len = len + #s + 1
  end
  local at = uniform(1, #list + 1)
  if #list > 0 and uniform(1, 4) == 1 then
    -- spliced into a word: no blanks around the token
    local target = list[math.min(at, #list)]
    local cut = uniform(1, math.max(#target - 1, 1))
    list[math.min(at, #list)] = sub(target, 1, cut) .. token .. sub(target, cut + 1)
  else
    table.insert(list, at, token)
  end
  local s = concat(list, " ")
  return #s > 60 and sub(s, 1, 60) or s
end

-- A_LNAME: the author's token (its own id for the first tenth of the items' count, uniform over
-- that range for the others: ~2.5 authors share a token), with a random suffix in a quarter.
function M.author_lname(a_id, items)
  local tenth = math.floor(items / 10)
  local k = a_id <= tenth and a_id or uniform(1, tenth)
  local s = common.digsyl(k, 7)
  if uniform(1, 4) == 1 then s = s .. M.letters(1, 6) end
  return s
end

-- One random address: street1, street2, city, state, zip, country id.
function M.address()
  return M.text(15, 40), M.text(15, 40), M.name(4, 30), M.name(2, 20), M.digits(uniform(5, 10)),
    uniform(1, 92)
end

return M
