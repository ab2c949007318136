"""Every number recall ranks, gates and fills by, in one place, each with why it has that value.

Most were set by hand against the LoCoMo dev conversations and the coding histories (bench/README.md, "Recall"
and "Recall by meaning"); a change to one is kept only when both hold or improve, measured in one run. The
limits at the end bound the work a prompt costs; their figures come from bench/run.py at 10,000 and 100,000
memories. Modules read them as `weights.NAME` at call time, so a test or a tuning run can change one in one place.
"""

# ------------------------------------------------------------------------------------ the gate (gate.py)
# Share of the prompt's IDF weight the best memory must hold: under a third, a shared word is more often
# chance than answer (set with the first recall on LoCoMo; no retune since has moved it).
COVERAGE_MIN = 0.35
# ...or the share of the weight of the prompt words the store holds, when the prompt has words the store never
# saw (the person's words are not the memory's): most of what is known must be there.
KNOWN_COVERAGE_MIN = 0.6
# ...or this little, when the prompt also names what the store is full of (a word on a third of the memories):
# that word shows the prompt is about the store's subject, so a weak match is still on topic.
ON_TOPIC_COVERAGE_MIN = 0.1
# Best memories by coverage looked at for the kind of value a prompt asks for: the answer is among the few best.
VALUE_GATE_ROWS = 20

# ------------------------------------------------------------------- how much context a prompt gets
# A ceiling: the relative cut below usually stops before it. 1,600 until 2026-11-28; with the cut at 0.28 and text
# scores weighted by the share of the prompt held, 1,300 keeps every coding history's answers at ~14% fewer
# characters; each 100 tokens less loses a question or two (bench/README.md, "What a prompt costs").
DEFAULT_BUDGET_TOKENS = 1300
DEFAULT_LIMIT = 40  # items at most, whatever the budget: more is a list nobody reads
# An item scoring under this share of the best item's score is left out, so a prompt with a clear answer gets a
# short context and a vague one gets more: on LoCoMo it traded ~1 point of evidence for ~20% fewer characters.
# 0.38 until text scores were weighted by the share of the prompt a memory holds (COVERAGE_BASE), which spreads
# scores further apart: 0.28 then gives LoCoMo a little more evidence than 0.38 gave in fewer characters (79.9% at
# 2,539 -> 80.4% at 2,447); 0.3 fell to 79.4%.
RELATIVE_CUT = 0.28
# Candidates scoring under this share of the best are dropped before filling: never worth their tokens.
RELATIVE_MIN = 0.15
# A prompt whose best memory holds under STRONG_SHARE of its weight gets at most WEAK_BUDGET_TOKENS (~1,200
# characters): on 70 prompts about nothing stored the mean injected fell from 433 to 156 characters (LoCoMo
# stores) and from 555 to 263 (coding histories), for 3 points of LoCoMo evidence at 14% fewer characters.
STRONG_SHARE = 0.5
WEAK_BUDGET_TOKENS = 300
# ...and only what scores at least 0.4 of its best: of 660 prompts no memory answers over eleven coding stores, ~180
# pass the gate, nearly all weak (with the coverage of the weak questions memory does answer: the gate cannot tell
# them apart), and each filled the short budget. Null prompts 392 -> 371 characters at 0.4 for no coding answer;
# 0.5: 352 for 1 of 632 (an answer at 0.42 of its best); 0.6: 327 for 4; 0.7: 295 for 6 (bench/README.md).
WEAK_RELATIVE_CUT = 0.4
MAX_ITEM_CHARS = 1200  # a longer memory is shown as the sentences around the prompt's words (`rlm-mem get` has all)
EXCERPT_MIN_TOKENS = 60  # room left in the budget worth an excerpt of a best memory too long for it: a few lines
ROOM_MIN_TOKENS = 12  # less room than this holds no item line: filling stops
REPEAT_MIN_CHARS = 24  # text this long contained in a chosen item is a repeat; shorter ("yes", "ok") is not
DAY_LINE_TOKENS = 3  # what a day heading costs in the compact form

# ------------------------------------------------------------------------------ text (candidates.py)
# A prompt word's family: the lexicon's terms for the same idea ("migrations": alembic) and the words sharing its
# root ("linter": lint*). A memory holding only the family counts this much of the word itself: a synonym is
# nearly the word, a derivation shares letters more often than meaning ("difference" and "different").
SYNONYM_WEIGHT = 0.6
DERIVED_WEIGHT = 0.5
# A word in more than COMMON_SHARE of the memories tells nothing (the speakers' names in a chat, "work" in a work
# log) and is not searched for, once there are COMMON_MIN_ROWS memories to tell by.
COMMON_SHARE = 0.3
COMMON_MIN_ROWS = 100
# FTS5 normalises BM25 by length with b = 0.75, fixed: a memory three times the average length keeps about half
# the score of a short one holding the same words, so session summaries of ten facts lost to short notes naming
# two of the question's words. A memory longer than PARAGRAPH_CHARS is scored as if b were LENGTH_B: coding
# histories 469 -> 472 of 503 questions (b 0.5-0.6 and a paragraph of 250-500 characters give the same), LoCoMo
# unchanged (its turns are shorter).
FTS_B, LENGTH_B = 0.75, 0.6
PARAGRAPH_CHARS = 350

# ------------------------------------------------------------------------- weighing (scoring.py)
# BM25 sums its words' scores, so a memory repeating one rare word of the prompt could outrank one holding most
# of it. A text score is multiplied by COVERAGE_BASE + the share of the prompt's weight the memory holds (0 to 1):
# LoCoMo 79.9% at 2,539 characters -> 80.4% at 2,447 (RELATIVE_CUT 0.28; without it, in the same budget: 79.3% at
# 2,421 with the cut at 0.38, 80.7% at 3,055 with 0.3), and the coding histories keep their answers in less. The share alone (a base of 0) answered at most 590 of
# 632 coding questions however wide the cut: a memory holding one word of the prompt is often the reply needed.
COVERAGE_BASE = 0.3
# Weight of a neighbour's text score in a turn's score, by offset (-1: the turn before, often the question). An
# answer rarely repeats the question's words: the reply to a matching turn lends 0.8 (0.7 before: LoCoMo x1.238 ->
# x1.274 against single turns, with the date boost below), further turns less.
KERNEL = {0: 1.0, -1: 0.8, 1: 0.45, -2: 0.3, 2: 0.3, -3: 0.18, 3: 0.18, -4: 0.1, 4: 0.1, -5: 0.06, 5: 0.06}
# "why ...?": the reason is said before what it explains (the request before the change, the problem before the
# fix), so the turns after a match lend as much as those before do in KERNEL.
WHY_KERNEL = {**KERNEL, 1: 0.8, 2: 0.45, 3: 0.3}
# What a memory is: what someone chose to keep (a correction most of all: it says what was wrong) outweighs the
# verbatim record; a session record summarises and so matches many prompts loosely: 0.8 until it was found to be
# the only memory holding the answer to none of 632 coding questions while costing 4% of their characters; at 0.4
# they kept their answers at 106 characters a prompt less (LoCoMo unchanged).
KIND_WEIGHT = {"correction": 1.5, "request": 1.4, "decision": 1.35, "preference": 1.3, "learning": 1.2,
               "consolidated": 1.2, "memory": 1.15, "milestone": 1.1, "turn": 1.0, "session": 0.4}
TYPE_WEIGHT = {"decision": 1.15, "preference": 1.1, "pattern": 1.05, "fact": 1.0, "note": 0.95}
# Confidence scales a memory between CONFIDENCE_BASE (none) and CONFIDENCE_BASE + CONFIDENCE_SLOPE (certain): a
# doubtful memory still shows when it is the only answer. A memory without one counts as DEFAULT_CONFIDENCE.
CONFIDENCE_BASE, CONFIDENCE_SLOPE, DEFAULT_CONFIDENCE = 0.6, 0.5, 0.8
SALIENCE_SLOPE = 0.5  # pinned, often used or recent (brain/store/salience.py): up to x1.5, never more than text
RECENT_DAYS = 120  # a turn older than this, never used nor pinned, has no salience left
CONTESTED_WEIGHT = 0.7  # a memory something contradicts: shown, below what nothing contradicts
SUPERSEDED_WEIGHT = 0.45  # a replaced memory is still history ("what did we use before?"): shown marked, ranked low
STALE_VALUE_WEIGHT = 0.7  # a turn stating a value changed since (search.db changes): shown marked, ranked lower
SPEAKER_BOOST = 2.0  # a turn by the person the prompt names ("what did Caroline paint?") is very likely the answer
# A memory made on, or about, a day the prompt names: ×5 rather than ×3 (LoCoMo's temporal questions: with the
# kernel above, x1.238 -> x1.274 against single turns).
DATE_BOOST = 5.0
FILE_BOOST = 2.0  # a memory about a file the prompt names
TAG_BOOST = 1.25  # a prompt word that is one of the memory's tags...
TAG_BOOST_MAX_TAGS = 2  # ...counted for at most two tags, so a memory tagged with everything does not win
VALUE_KIND_BOOST = 1.3  # "how long ...?": a memory stating a duration (a value of the kind asked for)
GLOBAL_WEIGHT = 0.85  # a memory without a project, next to this project's own: likely but less sure to apply
# Where a memory found other than by its words starts, as a share of the best text score: one made on a day the
# prompt names (the date boost lifts it); one about a file it names; the project's latest open work ("what's left
# to do?"), each older one at OPEN_WORK_SHARE of the one after it, OPEN_WORK_ROWS of them.
DATED_SHARE = 0.1
FILE_SHARE = 0.5
OPEN_WORK_SHARE = 0.8
OPEN_WORK_ROWS = 4
CONTEXT_MARGIN = 1.01  # a turn whose score its neighbours raised by more than 1% says "context" in its why
# A change behind a replaced value brings the turns before it (the request; for a "why" the reasons talked
# through), by distance: the request weighs as the change does.
CHANGE_REASON_TURNS = (1.0, 0.8, 0.6)
NEAR_VALUE_WORDS = 8  # words either side of a value, in its clause, that say what it is ("listens on port 3000")

# ------------------------------------------------------------- how much work a prompt costs (the limits)
# Of a longer prompt only its first and last characters are read: parsing a pasted megabyte took the prompt hook
# past its time limit, and no recall at all. At most PROMPT_WORDS words are searched for.
PROMPT_HEAD, PROMPT_TAIL = 8000, 2000
PROMPT_WORDS = 24
TERM_ROWS = 100  # best rows read per word: the answer is among a word's best matches or its score is small
# A word on more memories than COMMON_MAX_ROWS is ranked over its newest CAPPED_ROWS matches only: bm25() costs
# ~3 ms per thousand matches (100k store), ~0.3 ms a word capped. Capping the work, not the word, keeps a prompt
# whose words are all this common in a large store answered (issue 17).
COMMON_MAX_ROWS = 2000
CAPPED_ROWS = 100
# A word's matches are counted first among the newest COUNT_WINDOW memories: counting a word on 25,000 memories
# took 6 ms (100k store); its estimate moves the IDF of a capped word little.
COUNT_WINDOW = 20_000
# A family matching more memories than this is scored over its newest CAPPED_ROWS matches: "port" OR "bind" OR
# ... on 1,000 memories cost 3-5 ms to rank in full.
FAMILY_RANKED_ROWS = 500
HITS_FOR_CONTEXT = 40  # best text hits whose neighbouring turns are read (~4 ms one by one at 10k memories)
MAX_RUN = 400  # turns read in one go between a conversation's first and last hit; beyond, hit by hit
MAX_CANDIDATES = 200  # best by text and context that are weighed (each is fetched and weighed in Python)
DATED_ROWS = 200  # memories read per day the prompt names
FILE_ROWS = 200  # memories read per file the prompt names
CHANGES_READ = 200  # the project's newest value changes read (the replaced values a memory may state)
CHANGE_ROWS = 20  # best memories with a replaced value whose changes are looked for (a pass over changes each)
FILL_SCAN = 150  # candidates looked at when filling the budget
ROWID_BATCH = 500  # rowids per `IN (...)` query: well under SQLite's limit on bound parameters
