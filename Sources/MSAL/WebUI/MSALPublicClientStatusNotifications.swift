// The names of the notifications MSAL for iOS posts while its own web view or broker handles a
// sign-in (MSALPublicClientStatusNotifications.h), with MSAL's values. swift-msal hosts no web view
// and has no broker on Linux, so it never posts them; an app-supplied `MSALWebUI` sees its own page
// loads instead.

/// The name of MSAL for iOS's notification that its web view started loading a page.
///
/// Kept so that code written for MSAL for iOS compiles; never posted on Linux, where swift-msal
/// hosts no web view (an app-supplied ``MSALWebUI`` sees its own page loads).
@available(*, deprecated, message: "No MSAL web view on Linux: never posted")
public let MSALWebAuthDidStartLoadNotification = "MSALWebAuthDidStartLoadNotification"

/// The name of MSAL for iOS's notification that its web view finished loading a page.
///
/// Kept so that code written for MSAL for iOS compiles; never posted on Linux, where swift-msal
/// hosts no web view (an app-supplied ``MSALWebUI`` sees its own page loads).
@available(*, deprecated, message: "No MSAL web view on Linux: never posted")
public let MSALWebAuthDidFinishLoadNotification = "MSALWebAuthDidFinishLoadNotification"

/// The name of MSAL for iOS's notification that its web view failed to load a page.
///
/// Kept so that code written for MSAL for iOS compiles; never posted on Linux, where swift-msal
/// hosts no web view (a failed sign-in is reported by the request's error).
@available(*, deprecated, message: "No MSAL web view on Linux: never posted")
public let MSALWebAuthDidFailNotification = "MSALWebAuthDidFailNotification"

/// The name of MSAL for iOS's notification that its web view finished the sign-in.
///
/// Kept so that code written for MSAL for iOS compiles; never posted on Linux, where swift-msal
/// hosts no web view (the interactive request's completion says when the sign-in ends).
@available(*, deprecated, message: "No MSAL web view on Linux: never posted")
public let MSALWebAuthDidCompleteNotification = "MSALWebAuthDidCompleteNotification"

/// The name of MSAL for iOS's notification that it is about to open the broker app.
///
/// Kept so that code written for MSAL for iOS compiles; never posted on Linux, which has no broker.
@available(*, deprecated, message: "No broker on Linux: never posted")
public let MSALWebAuthWillSwitchToBrokerApp = "MSALWebAuthWillSwitchToBrokerApp"

/// The name of MSAL for iOS's notification that the broker app answered.
///
/// Kept so that code written for MSAL for iOS compiles; never posted on Linux, which has no broker.
@available(*, deprecated, message: "No broker on Linux: never posted")
public let MSALWebAuthDidReceiveResponseFromBroker = "MSALWebAuthDidReceiveResponseFromBroker"
