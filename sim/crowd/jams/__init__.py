"""The no-deadlock rule: jams found (`detect`), handed to the multi-agent planner and back.

`sim.crowd.jams.handoff.Jams` runs it over one crowd's rows, once a frame, at the top of the
crowd's step (`sim.crowd.crowd.Crowd.update`).
"""
