from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "voyage.studies"
    label = "studies"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported here, not at the top: the scheduler loads models, which Django imports only after
        # every app's config.
        # A study on the worker starts its next run when one of its runs settles (finished, failed,
        # paused by its budget): django-q2 signals this in the worker process after every task.
        from django_q.signals import post_execute_in_worker

        from voyage.studies.scheduler import after_task

        post_execute_in_worker.connect(after_task, dispatch_uid="studies-start-next-runs")
