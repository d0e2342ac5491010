"""The audit log, filtered and paged, newest first."""

from django.views.decorators.http import require_GET

from poimen import selectors
from poimen.forms import AuditFilterForm
from poimen.views.common import render_page


@require_GET
def audit(request):
    form = AuditFilterForm(request.GET)
    queryset = selectors.audit_list(filters=form.filters())
    page = selectors.audit_page(queryset, cursor=request.GET.get("after", ""))
    context = {"form": form, "page": page, "bulks_undone": selectors.bulks_undone(page.items)}
    return render_page(request, "audit.html", context, fragments=("content", "results"))
