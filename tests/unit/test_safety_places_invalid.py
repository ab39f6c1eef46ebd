"""An address urllib cannot read is never waved through by the domain rules."""

from __future__ import annotations

from venusctl.safety.places import INVALID_HOST, domain_matches, host_of


def test_unreadable_addresses_get_a_host_no_allow_list_matches():
    assert host_of("http://[::1") == INVALID_HOST
    assert host_of("https://shop.example:99999/") == INVALID_HOST
    assert not domain_matches(INVALID_HOST, "example.org")
    assert host_of("https://Shop.Example.org./pay") == "shop.example.org"
