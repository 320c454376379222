"""A run on several model profiles: one gateway per profile, each call sent to the one its group or
agent names (routes.py), and every answer tagged with the profile that gave it, which the call's
record keeps. The engine sees one gateway, as ever."""
from __future__ import annotations

from concurrent.futures import Future

from voyage.gateway.base import ACTION, Gateway, ModelAnswer, ModelRequest
from voyage.gateway.routes import profile_for


class RoutedGateway(Gateway):
    """`main`: (profile name, gateway) for what no route names; `others`: profile name -> gateway."""

    def __init__(self, main: tuple[str, Gateway], others: dict[str, Gateway], routes: dict):
        self.main_name, self.main = main
        self.gateways = {**others, self.main_name: self.main}
        self.routes = dict(routes)

    @property
    def name(self) -> str:
        return self.main.name

    @property
    def takes_schema(self) -> bool:  # a schema that an endpoint does not take is not sent
        return any(g.takes_schema for g in self.gateways.values())

    @property
    def answers_at_once(self) -> bool:
        return all(g.answers_at_once for g in self.gateways.values())

    def action_shape(self, agent_key: str | None) -> tuple[bool, str]:
        """The schema form of the endpoint this agent's actions go to: an OpenAI profile for a few
        agents gets its strict dialect while the others keep the grammar engines' anyOf."""
        name = profile_for(self.routes, ACTION, agent_key) or self.main_name
        return self.gateways[name].action_shape(agent_key)

    def route(self, request: ModelRequest) -> tuple[str, Gateway]:
        name = profile_for(self.routes, request.purpose, request.agent_key) or self.main_name
        return name, self.gateways[name]

    def complete(self, request: ModelRequest) -> ModelAnswer:
        name, gateway = self.route(request)
        return tagged(gateway.complete(request), name)

    def complete_many(self, requests: list[ModelRequest]) -> list[ModelAnswer]:
        """Each profile's share of the batch goes to it as one batch; answers come back in order."""
        batches: dict[str, list[int]] = {}
        for i, request in enumerate(requests):
            batches.setdefault(self.route(request)[0], []).append(i)
        answers: list[ModelAnswer | None] = [None] * len(requests)
        for name, positions in batches.items():
            for i, answer in zip(positions, self.gateways[name].complete_many([requests[i] for i in positions])):
                answers[i] = tagged(answer, name)
        return answers

    def start(self, request: ModelRequest) -> Future:
        name, gateway = self.route(request)
        inner, outer = gateway.start(request), Future()

        def done(future: Future) -> None:
            try:
                outer.set_result(tagged(future.result(), name))
            except BaseException as exc:  # the caller sees the inner call's failure as it was
                outer.set_exception(exc)
        inner.add_done_callback(done)
        return outer

    def close(self) -> None:
        for gateway in self.gateways.values():
            gateway.close()


def tagged(answer: ModelAnswer, profile: str) -> ModelAnswer:
    answer.profile = answer.profile or profile  # a replayed answer keeps the profile it was recorded with
    return answer
