print("msal")
