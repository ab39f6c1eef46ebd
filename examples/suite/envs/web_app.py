"""The shop web app (an order form, an about page, offers) on a free loopback port.

Exports SHOP_URL. Its state (orders, claims, visits) is at $SHOP_URL/state.
"""

from __future__ import annotations

from _serve import announce, wait_for_stop

from tests.support.webapp import ShopServer

with ShopServer() as shop:
    announce(SHOP_URL=shop.url)
    wait_for_stop()
