"""The export page: how many rows a filtered list makes, then the file (services.export)."""

from django.http import Http404, StreamingHttpResponse
from django.views.decorators.http import require_GET

from poimen import services
from poimen.views.common import LISTS, list_form, list_query, render_page


@require_GET
def export(request):
    """The filtered list as CSV or JSONL: first a page saying how many rows, then the file."""
    list_name = request.GET.get("list", "exclusions")
    if list_name not in LISTS:
        raise Http404("No such list")
    form = list_form(request, list_name)
    queryset = LISTS[list_name](filters=form.filters())
    file_format = services.EXPORT_FORMATS.get(request.GET.get("format", "csv"))
    file_format = file_format or services.EXPORT_FORMATS["csv"]
    with_text = request.GET.get("with_text") == "1"
    # A filter that did not parse would widen the file: say so instead of downloading.
    if request.GET.get("download") and not form.errors:
        response = StreamingHttpResponse(
            services.records_export_chunks(
                records=queryset, file_format=file_format.name, with_text=with_text
            ),
            content_type=file_format.content_type,
        )
        filename = f"poimen-{list_name}.{file_format.name}"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
    context = {
        "form": form,
        "count": queryset.count(),
        "described": form.described(),
        "list_name": list_name,
        "list_query": list_query(request),
        "formats": services.EXPORT_FORMATS.values(),
        "fields": services.EXPORT_FIELDS,
        "text_field": services.TEXT_FIELD,
    }
    status = 400 if request.GET.get("download") else 200
    return render_page(request, "export.html", context, status=status)
