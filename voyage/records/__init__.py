"""Reading what a run left: its event log as Markdown (`transcript`) and the ship as it stood after
any tick, folded from the event log (`timetravel`, pure)."""
