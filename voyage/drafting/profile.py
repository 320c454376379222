"""Which gateway drafts: the model profile the `author` route names (`--profile NAME`, in its own
structured-output form and dialect), or the offline policy's scripted drafter when none is named or
the profile is an offline one."""
from __future__ import annotations

from dataclasses import dataclass

from voyage.gateway.base import Gateway
from voyage.gateway.offline import OfflineModel
from voyage.models import ModelProfile
from world.drafting.scripted import SCRIPTED

OFFLINE_MAX_TOKENS = 4000  # the scripted drafter's answers are short; a bound for the projection


@dataclass(frozen=True)
class Author:
    name: str  # "scripted" or the profile's name
    profile: ModelProfile | None

    @property
    def max_tokens(self) -> int:
        return self.profile.max_tokens if self.profile is not None else OFFLINE_MAX_TOKENS

    @property
    def prices(self) -> tuple[float, float]:
        if self.profile is None:
            return 0.0, 0.0
        return float(self.profile.price_in_per_m), float(self.profile.price_out_per_m)

    def gateway(self) -> Gateway:
        if self.profile is None:
            return OfflineModel(seed=0)
        # lazy: the OpenAI SDK loads only when a model drafts
        from voyage.gateway.openai_client import GatewayConfig, OpenAIGateway

        return OpenAIGateway(GatewayConfig.from_profile(self.profile))


class NoSuchProfile(ValueError):
    pass


def author_for(name: str | None) -> Author:
    if not name:
        return Author(SCRIPTED, None)
    profile = ModelProfile.objects.filter(name=name).first()
    if profile is None:
        known = ", ".join(ModelProfile.objects.order_by("name").values_list("name", flat=True)) or "none"
        raise NoSuchProfile(f"there is no model profile {name!r} (defined: {known})")
    return Author(SCRIPTED, None) if profile.kind == ModelProfile.OFFLINE else Author(profile.name, profile)
