"""A simulated Android phone of our own choosing, on a private adb server.

Shows what a script can change that `sim: phone` options cannot: any field of
`PhoneConfig` (model name, screen size and density, extra lines on a screen, an
unauthorised phone, an old Android without shell v2…). Exports
ANDROID_ADB_SERVER_PORT (venusctl and adb use that server) and PHONE_SERIAL.
"""

from venusctl.sim import PhoneConfig, PhoneEnv, serve

config = PhoneConfig(model="Example Phone", size=(720, 1600), density=320,
                     texts={"home": ["Tip: notes are saved on this phone only"]})
serve(PhoneEnv(config, adb_port=0))  # 0: a private adb server on a free port
