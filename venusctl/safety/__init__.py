"""Safety: the guard every action passes, the people it asks, and the secrets it keeps.
It judges what drivers report and never imports the model or the loop above it.

  guard.py          the seam: `Guard.check(GuardRequest) -> Verdict` (allow/confirm/deny)
  targets.py        asking the driver about every point, the focus and the pointer
  ocr.py            reading nameless targets from the screenshot (Tesseract)
  pressing.py       what an action presses: keys, drags, releases, mnemonics, Enter
  policy.py         YAML policies: reading, `extends`, merging (`policies/*.yaml` shipped)
  policy_shape.py   the types a policy file must have, checked before merging
  rules.py          one rule's conditions and how they match
  facts.py          one press, its target and its place reduced to matchable fields
  text.py           keyword matching across scripts, accents and label shapes
  commands.py       typed shell commands as the shell splits them, and command specs
  detect.py         card numbers, one-time codes, secret placeholders in typed text
  places.py         domains and apps, allow- and deny-lists
  policy_guard.py   the guard that applies a policy (deny > confirm > allow)
  setup.py          flags and config file to policy, guard, prompt notes, run wrappers
  confirm.py        asking a person: terminal prompt, or fail closed without one
  crop.py           the marked picture shown before a confirmation
  secret_driver.py  the driver wrapper that types `{{secret:NAME}}` and blurs fields
  redact.py         secret values scrubbed from records, streams and logs
  recheck.py        a recorded run re-evaluated against a policy (`policy check`)
  show.py           a policy in words or YAML (`policy show`)
  sanitize.py       untrusted text made safe for every terminal output
"""
