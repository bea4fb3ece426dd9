-- soe.mix: which transaction comes next. A deck holds weights[i] cards of transaction i; it is
-- shuffled with the worker's random numbers (so a --rand-seed repeats it) and dealt in order,
-- then shuffled again. Every sum-of-weights transactions a worker deals hold the mix exactly,
-- whatever the users and threads: the observed mix of a run is off only by the part of a deck
-- each worker had dealt when the run ended.
local M = {}

local Deck = {}
Deck.__index = Deck

-- weights: a list of integers >= 0 with a positive sum; uniform(a, b): the random integers
-- (default sysbench.rand.uniform).
function M.new(weights, uniform)
  local cards = {}
  for i, w in ipairs(weights) do
    for _ = 1, w do cards[#cards + 1] = i end
  end
  assert(#cards > 0, "soe.mix: the weights add up to 0")
  return setmetatable({ cards = cards, dealt = #cards, uniform = uniform or sysbench.rand.uniform }, Deck)
end

-- The next transaction's index.
function Deck:next()
  local cards = self.cards
  local n = #cards
  if self.dealt == n then
    local uniform = self.uniform
    for i = n, 2, -1 do
      local j = uniform(1, i)
      cards[i], cards[j] = cards[j], cards[i]
    end
    self.dealt = 0
  end
  local d = self.dealt + 1
  self.dealt = d
  return cards[d]
end

return M
