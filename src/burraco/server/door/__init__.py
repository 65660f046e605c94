"""What comes in and how much: what one visitor may ask (``limits``: sizes and rates per
address), how much the process takes on and how it says "busy" (``capacity``), the door
where HTTP requests and spectators wait their turn (``turnstile``), the ASGI layer that caps
bodies and sets the security headers (``guard``) and the inputs checked once (``inputs``).
The room, its parts, the accounts and the routers read it; it imports only
``process.background`` and ``accounts.names`` (the look-alike check a name passes).
"""
