"""Which gateway a run talks to: replay (the run replays another's recorded calls), an
OpenAI-compatible endpoint (its model profile says so), or the offline scripted policy (the default:
no profile, or an offline one). A run whose `profile_routes` send some calls to other profiles
talks to one gateway per profile behind a RoutedGateway, which also tags each answer
with the profile that gave it (voyage/gateway/routing.py)."""
from __future__ import annotations

from voyage.calls.replay import ReplayGateway
from voyage.gateway.base import Gateway, GatewayConfigError
from voyage.gateway.offline import OfflineModel
from voyage.gateway.routing import RoutedGateway
from voyage.models import ModelProfile


def gateway_for(run) -> Gateway:
    if run.replay_of_id:
        return ReplayGateway(run.replay_of_id)
    main = one_gateway(run, run.profile)
    routes = getattr(run, "profile_routes", None) or {}
    if run.profile is None and not routes:
        return main  # the offline policy alone: its calls name no profile
    main_name = run.profile.name if run.profile is not None else ""
    others = {name: one_gateway(run, profile) for name, profile in routed_profiles(routes).items() if name != main_name}
    return RoutedGateway((main_name, main), others, routes)


def one_gateway(run, profile) -> Gateway:
    if profile is not None and profile.kind == ModelProfile.OPENAI:
        # lazy: the OpenAI SDK (and aiohttp) load only for a run that talks to an endpoint
        from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway

        return OpenAIGateway(GatewayConfig.from_profile(profile))
    return OfflineModel(seed=run.seed, malformed_rate=run.malformed_rate, phrasebook=run.scenario.phrasebook)


def routed_profiles(routes: dict) -> dict:
    """name -> ModelProfile of every profile the routes name; a name that no longer exists is a
    configuration error (the run pauses saying so)."""
    names = set(routes.values())
    found = {p.name: p for p in ModelProfile.objects.filter(name__in=names)}
    missing = sorted(names - set(found))
    if missing:
        raise GatewayConfigError(f"the run's profile routes name model profile(s) {', '.join(map(repr, missing))}, "
                                 f"which do not exist; define them or change the routes")
    return found
