"""The game record: the journal every decision is written to, and what is read back from it.

``journal`` is the file format (``docs/JOURNAL.md``) and its writer and untrusted reader;
``match`` is a game as a sequence of actions and chance events; ``saving`` writes a live game's
lines from a thread of their own and rides out storage faults; ``statedir`` holds and checks the
state directory (one program per directory, read-only, kept in RAM); ``recovery`` finds the game to
resume after a power cut; ``explain`` and ``history`` tell a finished game or many of them in
people's words. Its promise: what was journaled replays to the same game, and a damaged or
hostile file is refused with a reason, never half-applied.

What it may import: the games' pure rules, the arbiter's late-press notes, the profile's limits,
the untrusted-input readers and the settings' whole-file writer; never the table, the screens,
the daemon or any adapter.
"""
