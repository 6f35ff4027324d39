/// Test support for apps that use swift-msal: replay recorded identity-platform traffic
/// offline (``MSALReplayTransport``), and load recorded fixtures (``MSALRecordedFixture``).
@_exported import MSAL
