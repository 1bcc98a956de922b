// The enrol page (/accounts/2fa/): once django-otp-webauthn's script has registered a security
// key (its "otp_webauthn.register_complete" event), go on to the recovery codes.
document.addEventListener("otp_webauthn.register_complete", () => {
  document.getElementById("passkey-continue").submit();
});
