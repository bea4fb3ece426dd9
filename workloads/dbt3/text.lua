-- dbt3.text: the vocabularies of the generator: the text grammar's word classes (TPC-H clause
-- 4.2.2.10-14: sentences of noun, verb and prepositional phrases), part-name colours, and the
-- value lists of the typed columns (clause 4.2.2.13 and 4.2.3). The word lists are our own,
-- except for the words the queries' substitution parameters search for (Q13's WORD1/WORD2,
-- Q16's "Customer ... Complaints"), which must be there for the queries to select anything.
local M = {}

M.NOUNS = { "packages", "requests", "accounts", "deposits", "foxes", "ideas", "theodolites",
  "pinto beans", "instructions", "dependencies", "excuses", "platelets", "asymptotes", "courts",
  "dolphins", "multipliers", "warthogs", "frets", "attainments", "patterns", "forges", "braids",
  "warhorses", "epitaphs", "pearls", "tithes", "waters", "orbits", "gifts", "sheaves", "depths",
  "sentiments", "decoys", "realms", "pains", "escapades", "lanterns", "ledgers", "harbors",
  "kettles", "meadows", "comets" }

M.VERBS = { "sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect",
  "integrate", "maintain", "nod", "was", "lose", "solve", "thrash", "promise", "engage", "hinder",
  "print", "breach", "eat", "grow", "impress", "mold", "serve", "run", "dazzle", "snooze", "doze",
  "unwind", "kindle", "play", "hang", "believe", "doubt", "wander", "gather" }

M.ADJECTIVES = { "special", "pending", "unusual", "express", "furious", "sly", "careful",
  "blithe", "quick", "fluffy", "slow", "quiet", "ruthless", "thin", "close", "dogged", "daring",
  "brave", "stealthy", "permanent", "enticing", "idle", "busy", "regular", "final", "ironic",
  "even", "bold", "silent", "gentle", "restless" }

M.ADVERBS = { "sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely",
  "quickly", "fluffily", "slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly",
  "daringly", "bravely", "stealthily", "permanently", "enticingly", "idly", "busily",
  "regularly", "finally", "ironically", "evenly", "boldly", "silently", "gently" }

M.PREPOSITIONS = { "about", "above", "according to", "across", "after", "against", "along",
  "among", "around", "at", "atop", "before", "behind", "beneath", "beside", "between", "beyond",
  "by", "despite", "during", "except", "for", "from", "inside", "instead of", "into", "near",
  "of", "on", "outside", "over", "past", "since", "through", "throughout", "to", "toward",
  "under", "until", "upon", "without", "with", "within" }

M.AUXILIARIES = { "do", "may", "might", "shall", "will", "would", "can", "could", "should",
  "ought to", "must", "will have to", "shall have to", "could have to", "should have to",
  "must have to", "need to", "try to" }

M.TERMINATORS = { ".", ";", ":", "?", "!", "--" }

-- P_NAME is five distinct colours; Q9 and Q20 draw one as a parameter.
M.COLORS = { "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched",
  "blue", "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate",
  "coral", "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab",
  "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey",
  "honeydew", "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon", "light",
  "lime", "linen", "magenta", "maroon", "medium", "metallic", "midnight", "mint", "misty",
  "moccasin", "navajo", "navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru",
  "pink", "plum", "powder", "puff", "purple", "red", "rose", "rosy", "royal", "saddle", "salmon",
  "sandy", "seashell", "sienna", "sky", "slate", "smoke", "snow", "spring", "steel", "tan",
  "thistle", "tomato", "turquoise", "violet", "wheat", "white", "yellow" }

-- P_TYPE = one of each syllable list; P_CONTAINER = one of each of its two.
M.TYPE_S1 = { "STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO" }
M.TYPE_S2 = { "ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED" }
M.TYPE_S3 = { "TIN", "NICKEL", "BRASS", "STEEL", "COPPER" }
M.CONTAINER_S1 = { "SM", "LG", "MED", "JUMBO", "WRAP" }
M.CONTAINER_S2 = { "CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM" }

M.SEGMENTS = { "AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD" }
M.PRIORITIES = { "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW" }
M.INSTRUCTIONS = { "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN" }
M.MODES = { "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB" }

-- Nations: name and region key, by nation key 0..24 (clause 4.2.3).
M.NATIONS = {
  [0] = { "ALGERIA", 0 }, { "ARGENTINA", 1 }, { "BRAZIL", 1 }, { "CANADA", 1 }, { "EGYPT", 4 },
  { "ETHIOPIA", 0 }, { "FRANCE", 3 }, { "GERMANY", 3 }, { "INDIA", 2 }, { "INDONESIA", 2 },
  { "IRAN", 4 }, { "IRAQ", 4 }, { "JAPAN", 2 }, { "JORDAN", 4 }, { "KENYA", 0 },
  { "MOROCCO", 0 }, { "MOZAMBIQUE", 0 }, { "PERU", 1 }, { "CHINA", 2 }, { "ROMANIA", 3 },
  { "SAUDI ARABIA", 4 }, { "VIETNAM", 2 }, { "RUSSIA", 3 }, { "UNITED KINGDOM", 3 },
  { "UNITED STATES", 1 },
}
M.REGIONS = { [0] = "AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST" }

return M
