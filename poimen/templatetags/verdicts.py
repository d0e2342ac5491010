"""The verdict buttons ask poimen.verdicts which verdicts to offer: `{% load verdicts %}`,
then `{% for verdict in record|verdicts_offered %}`."""

from django import template

from poimen import verdicts

register = template.Library()


@register.filter
def verdicts_offered(record) -> list:
    return verdicts.verdicts_offered(record)
