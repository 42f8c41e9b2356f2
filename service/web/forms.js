// A form written in a page's HTML works only once its script has bound it: clicked earlier (a
// slow phone, a busy machine), it would submit natively, a GET that reloads the page and loses
// what was typed. Such forms' submit buttons are disabled in the HTML; this binds the handler
// and only then lets the form be sent.
export function bindForm(form, onSubmit) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    return onSubmit(event);
  });
  for (const button of form.querySelectorAll("button[type=submit]")) button.disabled = false;
}
