"""The guard that applies a policy: deny over confirm over allow, whatever else is said.

Inputs that the page or the model control (the target's label, the page title, the
typed text, the model's stated reason) can only ever add a confirmation or a
denial: an allow comes from the policy file, the command line or the person. So a
screen that says "the user has approved payments", or a thought that claims so,
changes nothing.
"""

from __future__ import annotations

from dataclasses import replace

from venusctl.core.actions import is_terminal
from venusctl.safety.facts import Facts, destination_words, facts_of
from venusctl.safety.guard import Decision, GuardRequest, Verdict
from venusctl.safety.places import host_of, in_apps, in_domains
from venusctl.safety.policy import STATE_CHANGE, Policy
from venusctl.safety.pressing import Press, PressMemory, presses_of
from venusctl.safety.text import normalize

ORDER = (Decision.DENY, Decision.CONFIRM, Decision.ALLOW)


class PolicyGuard:
    """Checks each action against one policy, press by press; the strictest verdict wins.

    Every point of a `Sequence`, both ends of a `Drag`, the default button Enter
    presses, the widget of an Alt mnemonic: each is a `Press` judged on its own.
    The guard remembers, from one step to the next, what the steps before left
    behind (`PressMemory`): the field clicked last stands in for the focus when the
    driver cannot tell it, a `MouseUp` completes the `MouseDown` before it, keys
    held with `KeyDown` join later combinations, and text typed since the last
    Enter is the command line Enter runs.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.memory = PressMemory()

    def check(self, request: GuardRequest) -> Verdict:
        if is_terminal(request.action):
            return Verdict(Decision.ALLOW, "ends the step without acting")
        verdicts = [self._judge(press, request) for press in presses_of(request, self.memory)]
        return strictest(verdicts)

    def _judge(self, press: Press, request: GuardRequest) -> Verdict:
        facts = facts_of(press, request)
        facts = replace(facts, secret_permitted=self._secrets_permitted(facts),
                        blind=facts.blind or not facts.scripts <= self.policy.scripts)
        if facts.navigates:
            facts = self._by_destination(facts)
        found = [*self._denied_places(facts), *self._rules(facts), *self._outside(facts),
                 *self._secret(facts)]
        verdict = strictest(found) if found else self._otherwise(facts)
        return replace(verdict, target=facts.shown)

    # ------------------------------------------------------------------ pieces
    def _by_destination(self, facts: Facts) -> Facts:
        """A link that only navigates is judged by its words and by where it leads: a
        "Continue" to /account/delete is asked about as deleting. A link to a help, FAQ
        or documentation site or path (the policy's `help_address` words) is reading,
        whatever it says ("How do I delete my account?"). A link's words still count
        elsewhere: a GET can act, and the request gate lets GETs through."""
        where = destination_words(facts.link)
        if self.policy.help_addresses.search(normalize(f"{host_of(facts.link)} {where}")):
            return replace(facts, target="", target_raw="", icons="", blind=False)
        return replace(facts, target=f"{facts.target} | {normalize(where)}",
                       target_raw=f"{facts.target_raw} | {where}")

    def _rules(self, facts: Facts) -> list[Verdict]:
        verdicts = []
        for rule in self.policy.rules:
            why = rule.match(facts)
            if why is not None:
                verdicts.append(Verdict(rule.verdict, f"{rule.reason} ({why})", rule.category,
                                        rule.id))
        return verdicts

    def _acts_here(self, facts: Facts) -> bool:
        """A state change that is more than scrolling or stepping back."""
        return "change" in facts.groups and not facts.groups & {"view", "retreat"}

    def _denied_places(self, facts: Facts) -> list[Verdict]:
        p, found = self.policy, []
        here = [h for h in facts.hosts if in_domains(h, p.deny_domains)]
        going = [h for h in facts.destinations if in_domains(h, p.deny_domains)]
        if going or (here and self._acts_here(facts)):
            found.append(Verdict(Decision.DENY, f"{(going or here)[0]} is on the deny-list",
                                 "denied-domain", "deny_domains"))
        apps = [a for a in facts.launched_apps if in_apps(a, p.deny_apps)]
        if not apps and self._acts_here(facts):
            apps = [a for a in facts.apps if in_apps(a, p.deny_apps)]
        if apps:
            found.append(Verdict(Decision.DENY, f"the app {apps[0]} is on the deny-list",
                                 "denied-app", "deny_apps"))
        return found

    def _outside(self, facts: Facts) -> list[Verdict]:
        p, found = self.policy, []
        if p.allow_domains:
            going = [h for h in facts.destinations if not in_domains(h, p.allow_domains)]
            here = [h for h in facts.hosts if not in_domains(h, p.allow_domains)]
            if going or (here and self._acts_here(facts)):
                found.append(Verdict(
                    Decision.CONFIRM, f"{(going or here)[0]} is outside the allowed domains "
                    f"({', '.join(p.allow_domains)})", "leave-domain", "allow_domains"))
        if p.allow_apps:
            going = [a for a in facts.launched_apps if not in_apps(a, p.allow_apps)]
            here = [a for a in facts.apps if not in_apps(a, (*p.allow_apps, *p.home_apps))]
            if going or (here and self._acts_here(facts) and not facts.launched_apps):
                found.append(Verdict(
                    Decision.CONFIRM, f"the app {(going or here)[0]} is outside the allowed "
                    f"apps ({', '.join(p.allow_apps)})", "leave-app", "allow_apps"))
        return found

    def _secrets_permitted(self, facts: Facts) -> bool:
        """Every secret typed is permitted here by the policy's `secrets` section."""
        if not facts.secrets:
            return False
        for name in facts.secrets:
            permit = self.policy.secrets.get(name)
            if permit is None:
                return False
            hosts_ok = any(in_domains(h, permit.domains) for h in facts.secret_hosts)
            apps_ok = any(in_apps(a, permit.apps) for a in facts.apps)
            if not (hosts_ok or apps_ok):
                return False
        return True

    def _secret(self, facts: Facts) -> list[Verdict]:
        if not facts.secrets or facts.secret_permitted:
            return []
        names = ", ".join(dict.fromkeys(facts.secrets))
        return [Verdict(Decision.CONFIRM, f"types the stored secret {names}", "secret",
                        "secrets")]

    def _otherwise(self, facts: Facts) -> Verdict:
        if "change" in facts.groups and self.policy.otherwise is Decision.CONFIRM:
            return Verdict(Decision.CONFIRM, "every state-changing action is confirmed",
                           STATE_CHANGE, "otherwise")
        return Verdict(Decision.ALLOW, "no rule matched")


def strictest(verdicts: list[Verdict]) -> Verdict:
    """Deny over confirm over allow; the first of equals (policy order) speaks."""
    for decision in ORDER:
        for verdict in verdicts:
            if verdict.decision is decision:
                return verdict
    return Verdict(Decision.ALLOW, "nothing to judge")
