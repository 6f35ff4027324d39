"""URLs of the test provider: DOT under /o/, Django's login under /accounts/."""

import json
from pathlib import Path

import oauth2_provider
from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.urls import include, path, re_path, reverse
from django.views.static import serve
from oauth2_provider.views import ConnectDiscoveryInfoView


class DiscoveryWithDeviceEndpoint(ConnectDiscoveryInfoView):
    """DOT's discovery document plus ``device_authorization_endpoint``.

    DOT 3.4.1 serves the RFC 8628 device authorization endpoint (/o/device-authorization/) but
    does not advertise it in /.well-known/openid-configuration. Only used when server.py is
    started with --advertise-device-endpoint.
    """

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        data = json.loads(response.content)
        data["device_authorization_endpoint"] = request.build_absolute_uri(
            reverse("oauth2_provider:device-authorization")
        )
        response.content = json.dumps(data).encode()
        return response


def home(request):
    user = request.user.get_username() if request.user.is_authenticated else "nobody"
    return HttpResponse(
        f"<!DOCTYPE html><title>DOT test provider</title><p>DOT test provider; signed in: {user}</p>"
    )


urlpatterns = []
if settings.ADVERTISE_DEVICE_ENDPOINT:
    urlpatterns.append(re_path(r"^o/\.well-known/openid-configuration/?$", DiscoveryWithDeviceEndpoint.as_view()))
urlpatterns += [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    re_path(
        r"^static/(?P<path>oauth2_provider/.*)$",
        serve,
        {"document_root": Path(oauth2_provider.__file__).resolve().parent / "static"},
    ),
    path("", home),
]
