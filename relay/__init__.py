"""Running a relay: the embedded MQTT broker, its accounts and topic rules, and Mosquitto's configuration.

``relay.rules`` says who may publish and read where (pure), ``relay.users`` keeps
the accounts file, ``relay.embedded`` runs amqtt with those rules,
``relay.mosquitto`` writes (and, for tests, runs) a Mosquitto configuration
with the same rules, and ``relay.cli`` is ``olixono relay``. The relay is
trusted with nothing: it stores and forwards signed lines.
"""
