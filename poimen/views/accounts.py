"""A team member's own account: replacing the one-time password `add_user` printed, which the
desk asks for at the first login and before anything else."""

from django.contrib.auth import views as auth_views
from django.urls import reverse_lazy

from poimen import services
from poimen.selectors.accounts import has_one_time_password
from poimen.web.middleware import ONE_TIME


def note_one_time_password(sender, request, user, **kwargs):
    """At login (the user_logged_in signal): note in the session whether it must change."""
    if has_one_time_password(user):
        request.session[ONE_TIME] = True
    else:
        request.session.pop(ONE_TIME, None)


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "password_change.html"
    success_url = reverse_lazy("password_changed")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        return {**context, "one_time": self.request.session.get(ONE_TIME)}

    def form_valid(self, form):
        response = super().form_valid(form)
        services.one_time_password_replaced(user=self.request.user)
        self.request.session.pop(ONE_TIME, None)
        return response
