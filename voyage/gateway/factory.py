"""Which gateway a run talks to: replay (the run replays another's recorded calls), an
OpenAI-compatible endpoint (its model profile says so), or the offline scripted policy (the default:
no profile, or an offline one)."""
from __future__ import annotations

from voyage.gateway.base import Gateway


def gateway_for(run) -> Gateway:
    from voyage.models import ModelProfile

    if run.replay_of_id:
        from voyage.gateway.replay import ReplayGateway

        return ReplayGateway(run.replay_of_id)
    profile = run.profile
    if profile is not None and profile.kind == ModelProfile.OPENAI:
        from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway

        return OpenAIGateway(GatewayConfig.from_profile(profile))
    from voyage.gateway.offline import OfflineModel

    return OfflineModel(seed=run.seed, malformed_rate=run.malformed_rate, phrasebook=run.scenario.phrasebook)
