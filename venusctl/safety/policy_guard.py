"""The guard that applies a policy: deny over confirm over allow, whatever else is said.

Inputs that the page or the model control (the target's label, the page title, the
typed text, the model's stated reason) can only ever add a confirmation or a
denial: an allow comes from the policy file, the command line or the person. So a
screen that says "the user has approved payments", or a thought that claims so,
changes nothing.
"""

from __future__ import annotations

from dataclasses import replace

from venusctl.actions import Launch, LaunchApp, PressBack, PressHome, is_terminal, walk
from venusctl.drivers.base import Element
from venusctl.safety.facts import POINTING, Facts, facts_of
from venusctl.safety.guard import Decision, GuardRequest, Verdict
from venusctl.safety.places import in_apps, in_domains
from venusctl.safety.policy import STATE_CHANGE, Policy

_RESETS_FOCUS = (Launch, LaunchApp, PressBack, PressHome)


class PolicyGuard:
    """Checks each action against one policy; remembers the last clicked element.

    Drivers cannot always say which field a `Type` goes into, so the element of the
    last click stands in for the focused field when the request carries none.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._focus: Element | None = None

    def check(self, request: GuardRequest) -> Verdict:
        if is_terminal(request.action):
            return Verdict(Decision.ALLOW, "ends the step without acting")
        facts = facts_of(request, self._element_for(request))
        facts = replace(facts, secret_permitted=self._secrets_permitted(facts))
        found = [*self._denied_places(facts), *self._rules(facts), *self._outside(facts),
                 *self._secret(facts)]
        for decision in (Decision.DENY, Decision.CONFIRM, Decision.ALLOW):
            for verdict in found:
                if verdict.decision is decision:
                    return verdict
        return self._otherwise(facts)

    # ------------------------------------------------------------------ pieces
    def _element_for(self, request: GuardRequest) -> Element | None:
        actions = list(walk(request.action))
        if any(isinstance(a, POINTING) for a in actions):
            self._focus = request.element
            return request.element
        if any(isinstance(a, _RESETS_FOCUS) for a in actions):
            self._focus = None
            return request.element
        return request.element if request.element is not None else self._focus

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
            hosts_ok = any(in_domains(h, permit.domains) for h in facts.hosts)
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
