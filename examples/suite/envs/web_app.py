"""The shop web app on a free loopback port, served with venusctl's environment API.

The suite could say `sim: web` instead; a script is the place to change something
(here: nothing, it is the smallest possible environment script). Exports SHOP_URL.
"""

from venusctl.sim import ShopServer, serve

serve(ShopServer())
